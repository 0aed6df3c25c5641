/**
 * "Skip to content": the first thing Tab reaches on every page of the app
 * shell, so a keyboard user goes straight to the page instead of through the
 * header and the navigation. It moves focus itself (the address keeps no #).
 */
import { useEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router';
import classes from './SkipLink.module.css';

export const MAIN_ID = 'main';

export function SkipLink() {
  return (
    <a
      href={`#${MAIN_ID}`}
      className={classes.link}
      onClick={(event) => {
        const main = document.getElementById(MAIN_ID);
        if (!main) return;
        event.preventDefault();
        main.focus();
      }}
    >
      Skip to content
    </a>
  );
}

/**
 * After the person moves to another page (a link, a button, Back: not a
 * filter change, which keeps the path, nor a redirect such as the one after
 * logging in, which leaves "Skip to content" first), the focus goes to the
 * page's content: a keyboard user goes on from there, and a screen reader
 * reads the new page.
 */
export function useFocusMainOnNavigation() {
  const { pathname } = useLocation();
  const how = useNavigationType();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (how !== 'REPLACE') document.getElementById(MAIN_ID)?.focus({ preventScroll: true });
  }, [pathname]);
}
