/** Whether the screen is a phone's (narrower than Mantine's `sm`, 48em): lists show compact rows and hide their filters behind a button. */
import { useMediaQuery } from '@mantine/hooks';

export const useIsPhone = (): boolean => useMediaQuery('(max-width: 47.99em)') ?? false;
