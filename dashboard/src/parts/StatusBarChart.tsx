/** A card with a day-by-day bar chart, one stacked bar per day split by status (the home page's payments and subscriptions). */
import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Card, Center, Text, Title } from '@mantine/core';
import { statusColor } from '../ui/StatusBadge';

const CHART_COLOR: Record<string, string> = {
  paid: 'teal.6',
  created: 'gray.5',
  pending: 'yellow.5',
  processing: 'blue.5',
  failed: 'red.6',
  canceled: 'grape.4',
  expired: 'gray.7',
  trialing: 'cyan.5',
  active: 'teal.6',
  past_due: 'orange.6',
};

/** Counts are whole numbers: the axis never says 0.25. A period with nothing in it says so instead of an empty grid. */
export function StatusBarChart({
  title,
  label,
  statuses,
  data,
  height,
  empty = 'Nothing was created in this period.',
}: {
  title: string;
  label: string;
  statuses: readonly string[];
  data: Record<string, unknown>[];
  height: number;
  empty?: string;
}) {
  const total = data.reduce((sum, day) => sum + statuses.reduce((daySum, status) => daySum + (Number(day[status]) || 0), 0), 0);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {total === 0 ? (
        <Center h={height}>
          <Text c="dimmed">{empty}</Text>
        </Center>
      ) : (
        <BarChart
          h={height}
          data={data}
          dataKey="date"
          type="stacked"
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          series={statuses.map((status) => ({ name: status, color: CHART_COLOR[status] ?? statusColor(status) }))}
          aria-label={label}
          textColor="gray.7"
          yAxisProps={{ allowDecimals: false }}
        />
      )}
    </Card>
  );
}
