import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { isTemporary } from './api/errors';
import { SESSION_KEY, sessionQuery } from './api/session';
import { cssVariablesResolver, theme } from './ui/theme';
import { App, preloadFor } from './App';
import { tenancyQueries } from './shell/scope';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (403, 404, bad filter) will not change by asking again; a dropped connection or the database's brief absence (503) may.
      retry: (count, error) => count < 2 && isTemporary(error),
      staleTime: 5_000,
      refetchOnWindowFocus: true,
    },
  },
});

// Opening the dashboard is a chain of round trips (a phone network makes each one slow). index.html has the browser
// ask for the session while these scripts download (the call below picks that answer up), and on a link to a
// logged-in page (a bookmark, a reload) a small script of the build starts that page's code meanwhile. The lists
// every such page reads first, and the page's own first list (shell/first-queries.ts), are asked for together the
// moment the session (whose CSRF token they need) is known, not when the layout asks.
const pathname = window.location.pathname.replace(/^\/dashboard/, '');
const signedInPage = preloadFor(pathname);
const firstQueries = signedInPage ? import('./shell/first-queries').catch(() => null) : null;
void queryClient.prefetchQuery(sessionQuery).then(async () => {
  if (!signedInPage || !queryClient.getQueryData(SESSION_KEY)) return;
  void queryClient.prefetchQuery(tenancyQueries.organizations);
  void queryClient.prefetchQuery(tenancyQueries.projects);
  void queryClient.prefetchQuery(tenancyQueries.environments);
  (await firstQueries)?.prefetchPageQueries(queryClient, pathname, window.location.search);
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <QueryClientProvider client={queryClient}>
        <BrowserRouter basename="/dashboard">
          <App />
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
