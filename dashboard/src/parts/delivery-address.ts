/**
 * The delivery open in the deliveries page, in the address
 * (/e/:env/deliveries/:deliveryId): a delivery has a URL of its own to share
 * or bookmark, and the list's filters stay as they were when it is closed.
 */
import { useLocation, useNavigate, useParams } from 'react-router';

export function useDeliveryInAddress(environmentId: string): [string | null, (deliveryId: string | null) => void] {
  const { deliveryId } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const open = (id: string | null) => void navigate(`/e/${environmentId}/deliveries${id ? `/${encodeURIComponent(id)}` : ''}${location.search}`);
  return [deliveryId ?? null, open];
}

export const deliveryPath = (environmentId: string, deliveryId: string) => `/e/${environmentId}/deliveries/${encodeURIComponent(deliveryId)}`;
export const eventPath = (environmentId: string, eventId: string) => `/e/${environmentId}/events/${encodeURIComponent(eventId)}`;
