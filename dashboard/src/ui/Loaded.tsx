/** A query's content once it is there: until then the error, the loader, or (for an empty list) the empty message. */
import type { ReactNode } from 'react';
import { Empty, Failed, Loading } from './states';

export function Loaded<Data>({
  error,
  data,
  loading = data === undefined,
  empty,
  children,
}: {
  error: unknown;
  data: Data | undefined;
  /** Defaults to "no data yet". */
  loading?: boolean;
  /** Shown instead of the content when the data is an empty list. */
  empty?: ReactNode;
  children: (data: Data) => ReactNode;
}) {
  if (error) return <Failed error={error} />;
  if (loading || data === undefined) return <Loading />;
  if (empty !== undefined && Array.isArray(data) && data.length === 0) return <Empty>{empty}</Empty>;
  return <>{children(data)}</>;
}
