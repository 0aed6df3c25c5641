/**
 * Pages loaded on demand, each in its own chunk, so the log-in page carries
 * only what it needs. `preload()` starts a page's download before React asks
 * for it: App.tsx's preloadFor() does so for the page in the address while
 * the session is still being read, instead of one after the other.
 *
 * A page whose code is already here renders without suspending: React's
 * lazy() takes the module at once from a thenable that answers
 * synchronously. Otherwise the layout would commit with a loader where the
 * page goes, and React holds each revealed Suspense boundary back for up to
 * 300 ms, then renders the page in a second pass: on a slow phone, most of a
 * second between the list's answer and its first row.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export type LazyPage<P> = LazyExoticComponent<ComponentType<P>> & { preload(): void };

type PropsOf<C> = C extends ComponentType<infer P> ? P : never;
type Module = { default: ComponentType<object> };

/** `page(() => import('./pages/Payments'))` for a default export; `page(() => import('./x'), 'Named')` for a named one. */
export function page<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): LazyPage<P>;
export function page<M, K extends keyof M>(load: () => Promise<M>, name: K): LazyPage<PropsOf<M[K]>>;
export function page(load: () => Promise<unknown>, name: PropertyKey = 'default'): unknown {
  let loaded: Module | undefined;
  // import() loads a module once: preloading and rendering share the same download.
  const component = () =>
    load().then((module) => (loaded = { default: (module as Record<PropertyKey, ComponentType<object>>)[name]! }));
  const here = (): PromiseLike<Module> => (loaded ? { then: (resolve) => resolve!(loaded!) as never } : component());
  return Object.assign(lazy(here as () => Promise<Module>), { preload: () => void component().catch(() => undefined) });
}

export function isLazyPage(type: unknown): type is LazyPage<object> {
  return typeof type === 'object' && type !== null && typeof (type as { preload?: unknown }).preload === 'function';
}
