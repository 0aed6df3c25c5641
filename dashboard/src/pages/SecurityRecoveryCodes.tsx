/**
 * Recovery codes, shown once: the service keeps only their hashes. Copy them
 * all, or download them as a text file, before closing.
 */
import { Alert, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { CopyButton } from '@mantine/core';

function download(codes: string[], email: string) {
  const text = `Recovery codes for ${email} (payments dashboard)\nEach code works once.\n\n${codes.join('\n')}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'payments-dashboard-recovery-codes.txt';
  link.click();
  URL.revokeObjectURL(url);
}

export function RecoveryCodesOnce({ codes, email, onClose }: { codes: string[] | null; email: string; onClose: () => void }) {
  return (
    <Modal opened={codes !== null} onClose={onClose} title="Your recovery codes" size="md" closeOnClickOutside={false} closeOnEscape={false}>
      <Stack>
        <Alert color="yellow" title="Save them now">
          This is the only time they are shown. If you lose your phone, each code lets you log in once. Keep them somewhere safe, apart from your phone.
        </Alert>
        {codes && (
          <List aria-label="Recovery codes" listStyleType="none" spacing={4} style={{ fontFamily: 'var(--mantine-font-family-monospace)', columns: 2 }}>
            {codes.map((code) => (
              <List.Item key={code}>{code}</List.Item>
            ))}
          </List>
        )}
        <Group>
          {codes && (
            <CopyButton value={codes.join('\n')} timeout={2000}>
              {({ copied, copy }) => (
                <Button variant="light" onClick={copy}>
                  {copied ? 'Copied' : 'Copy all'}
                </Button>
              )}
            </CopyButton>
          )}
          {codes && (
            <Button variant="light" onClick={() => download(codes, email)}>
              Download
            </Button>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          You can make new ones at any time (the old ones then stop working).
        </Text>
        <Button onClick={onClose}>I have saved them</Button>
      </Stack>
    </Modal>
  );
}
