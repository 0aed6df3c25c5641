/** A value with a copy button: secrets shown once, ids, the inbound webhook URL. */
import { ActionIcon, Code, CopyButton, Group, Tooltip } from '@mantine/core';

function CopyIcon({ done }: { done: boolean }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      {done ? (
        <path d="M5 12l5 5L20 7" />
      ) : (
        <>
          <rect x="9" y="9" width="12" height="12" rx="2" />
          <path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1" />
        </>
      )}
    </svg>
  );
}

export function CopyValue({ value, label, secret = false }: { value: string; label: string; secret?: boolean }) {
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <Code style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-secret={secret ? 'true' : undefined} aria-label={label}>
        {value}
      </Code>
      <CopyButton value={value} timeout={2000}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy ${label}`} withArrow>
            <ActionIcon variant="light" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={`Copy ${label}`}>
              <CopyIcon done={copied} />
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
