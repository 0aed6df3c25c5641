/**
 * An address this account cannot open (an environment of another
 * organization, one that was deleted, a link from someone else's session):
 * back to the person's own start, saying so rather than landing there
 * without a word. Nothing tells whether the environment exists.
 */
import { notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { Navigate } from 'react-router';

export function NotAvailable() {
  useEffect(() => {
    // One notification however often this renders (the id is kept while it shows).
    notifications.show({
      id: 'page-not-available',
      color: 'orange',
      title: 'Page not available',
      message: 'That page is not available to this account: it belongs to an environment you are not a member of, or it no longer exists. Here is your own start page.',
      autoClose: 10_000,
    });
  }, []);
  return <Navigate to="/" replace />;
}
