/**
 * A secret the service shows once (an API key, a signing secret): in a modal
 * with a copy button, gone from the page when it closes. It is never put in
 * the query cache, the address or storage.
 */
import { Alert, Button, Modal, Stack, Text } from '@mantine/core';
import { CopyValue } from '../ui/Copy';

export function SecretOnce({ secret, title, label, onClose, children }: { secret: string | null; title: string; label: string; onClose: () => void; children?: React.ReactNode }) {
  return (
    <Modal opened={secret !== null} onClose={onClose} title={title} size="lg" closeOnClickOutside={false}>
      <Stack>
        <Alert color="yellow" title="Copy it now">
          This is the only time it is shown. The service keeps only a hash or a sealed copy; if it is lost, create a new one.
        </Alert>
        {children}
        {secret && <CopyValue value={secret} label={label} secret />}
        <Text size="sm" c="dimmed">
          Store it in your secret manager, not in source code.
        </Text>
        <Button onClick={onClose}>I have copied it</Button>
      </Stack>
    </Modal>
  );
}
