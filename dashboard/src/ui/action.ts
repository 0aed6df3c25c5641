/**
 * Every button that changes something goes through here: it shows as
 * pending while the call runs, then a notification says it worked or gives
 * the service's own error message; the lists it touched are fetched again.
 */
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { messageOf } from '../api/errors';

export interface ActionOptions<Input, Output> {
  /** What the success notification says (from the answer when a function). */
  success?: string | ((output: Output, input: Input) => string);
  /** Query keys (prefixes) to fetch again after success. */
  invalidate?: QueryKey[];
  onSuccess?: (output: Output, input: Input) => void;
}

export function useAction<Input, Output>(run: (input: Input) => Promise<Output>, options: ActionOptions<Input, Output> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: async (output, input) => {
      if (options.success) {
        const message = typeof options.success === 'function' ? options.success(output, input) : options.success;
        notifications.show({ color: 'green', title: 'Done', message });
      }
      options.onSuccess?.(output, input);
      await Promise.all((options.invalidate ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
    onError: (error) => {
      notifications.show({ color: 'red', title: 'Not done', message: messageOf(error), autoClose: 10_000 });
    },
  });
}
