/**
 * The dashboard's Mantine theme, tuned so text meets WCAG AA contrast (4.5:1)
 * on its background (axe-core checks every page: test/dashboard/e2e-accessibility.test.ts):
 * - the primary colour at shade 7 (shade 6 is 4.3:1 on white, for links and filled buttons);
 * - the text shades (7 to 9) of the warm colours and greens darker, so
 *   `c="orange.8"`, `c="red.7"`, `c="teal.8"` and their filled buttons read;
 * - dimmed text (Mantine's gray 6, 3.3:1) at gray 7, errors at red 9;
 * - light variants (badges, light buttons and alerts) with dark enough text on their tint;
 * - notifications' text at the dimmed colour too;
 * - a name for the close button of every modal, drawer and notification, and no second
 *   banner landmark from a modal's header.
 */
import {
  createTheme,
  darken,
  DEFAULT_THEME,
  defaultVariantColorsResolver,
  luminance,
  parseThemeColor,
  type CSSVariablesResolver,
  type MantineColorsTuple,
  type VariantColorsResolver,
} from '@mantine/core';

/** The sandbox's orange: white text on it is 5.4:1, and it is 5.4:1 as text on white. */
export const SANDBOX_COLOR = '#b54708';

/** Mantine's palette with its shades 7, 8 and 9 replaced (0 to 6, the tints and fills, stay). */
const withTextShades = (name: keyof typeof DEFAULT_THEME.colors, dark: [string, string, string]): MantineColorsTuple =>
  [...DEFAULT_THEME.colors[name]!.slice(0, 7), ...dark] as unknown as MantineColorsTuple;

const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

/** Light variants put shade-9 text on shade 1: darkened until it reads at 4.8:1 (a margin over 4.5 for hover tints). */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== 'light') return colors;
  const parsed = parseThemeColor({ color: input.color || input.theme.primaryColor, theme: input.theme });
  const palette = parsed.isThemeColor ? input.theme.colors[parsed.color] : undefined;
  if (!palette) return colors;
  let text = palette[9];
  for (let step = 0; step < 6 && contrast(text, palette[1]) < 4.8; step++) text = darken(text, 0.1);
  return { ...colors, color: text, hoverColor: text };
};

export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  colors: {
    red: withTextShades('red', ['#d32f2f', '#c92a2a', '#a51d1d']),
    orange: withTextShades('orange', ['#c2410c', '#a8380a', '#9a3412']),
    yellow: withTextShades('yellow', ['#b45309', '#92400e', '#78350f']),
    green: withTextShades('green', ['#237032', '#1e6b2d', '#1a5c27']),
    teal: withTextShades('teal', ['#087f5b', '#076b4d', '#065a41']),
  },
  variantColorResolver,
  components: {
    // Plain objects rather than Modal.extend(…): importing Modal, Drawer and Notification here would put them,
    // and all they import, in the log-in page's download (test/dashboard/budget.test.ts).
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // A titled notification's text is Mantine's gray 6 (3.3:1 on white): the dimmed colour (gray 7) instead.
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } }, styles: { description: { color: 'var(--mantine-color-dimmed)' } } },
    // A modal's <header> sits in a role="dialog" element, which does not scope it: it would be a second banner.
    ModalHeader: { defaultProps: { role: 'presentation' } },
    DrawerHeader: { defaultProps: { role: 'presentation' } },
  },
});

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-9)' },
  dark: {},
});
