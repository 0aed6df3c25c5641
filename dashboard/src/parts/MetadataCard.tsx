/** The merchant's metadata of a payment or subscription, as formatted JSON, with anything that could disguise text shown as escapes. */
import { Card, Code, ScrollArea, Text, Title } from '@mantine/core';
import { displayJson } from './safe-json';

export function MetadataCard({ metadata }: { metadata: unknown }) {
  const empty = metadata == null || (typeof metadata === 'object' && Object.keys(metadata as object).length === 0);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Metadata
      </Title>
      {empty ? (
        <Text size="sm" c="dimmed">
          None was sent with it.
        </Text>
      ) : (
        <ScrollArea.Autosize mah={320} type="auto">
          <Code block aria-label="Metadata" dir="ltr" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', unicodeBidi: 'isolate' }}>
            {displayJson(metadata)}
          </Code>
        </ScrollArea.Autosize>
      )}
    </Card>
  );
}
