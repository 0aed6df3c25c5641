/** Exact JSON (a payload, a body) as the service stored it, scrollable, never reformatted when it is a string. */
import { Code, ScrollArea } from '@mantine/core';

export function Json({ value, label, maxHeight = 320 }: { value: unknown; label: string; maxHeight?: number }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <ScrollArea.Autosize mah={maxHeight} type="auto">
      <Code block aria-label={label} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {text}
      </Code>
    </ScrollArea.Autosize>
  );
}
