/**
 * An event a state transition caused, before it is written to the outbox.
 * Free of imports, so entities can return events without depending on storage.
 */
export interface DomainEvent {
  type: string;
  resourceId: string;
  environmentId: string;
  data: Record<string, unknown>;
}
