/**
 * A refused call, as the service said it (`{"error","message","issues"?}`):
 * client.ts reads every error answer into one. Its own file, free of the
 * browser's fetch types, so the messages built from it (errors.ts) are
 * tested outside a browser.
 */
export interface ApiIssue {
  path: (string | number)[];
  message: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ApiIssue[] = [],
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}
