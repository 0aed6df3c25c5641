/**
 * What the customer pays a pending Pix with: the QR image and the
 * copy-and-paste code. A gateway that hands the image over inline (a data:
 * URL) is shown as it came; one that names an image on its own host cannot
 * be shown under the dashboard's content policy (images from this origin or
 * data: only), so the same code is drawn here as a QR image (it encodes
 * exactly the copy-and-paste text) and the gateway's own image is linked.
 */
import { Anchor, Card, Group, Image, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { CopyValue } from '../ui/Copy';
import { formatDateTime } from '../ui/format';

const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/;
const isHttpUrl = (value: string) => /^https?:\/\//i.test(value);

function useQrImage(qrCode: string, text: string): string | null {
  const inline = DATA_IMAGE.test(qrCode) ? qrCode : null;
  const [drawn, setDrawn] = useState<string | null>(null);
  useEffect(() => {
    if (inline) return;
    let current = true;
    import('qrcode')
      .then((qr) => qr.toDataURL(text, { margin: 1, width: 240, errorCorrectionLevel: 'M' }))
      .then((url) => current && setDrawn(url))
      .catch(() => current && setDrawn(null));
    return () => {
      current = false;
    };
  }, [inline, text]);
  return inline ?? drawn;
}

export function PixCode({ pix, expiresAt }: { pix: { qrCode: string; qrCodeText: string }; expiresAt: string | null }) {
  const image = useQrImage(pix.qrCode, pix.qrCodeText);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Pix to pay
      </Title>
      <Group align="flex-start" gap="lg">
        {image ? <Image src={image} alt="Pix QR code" w={180} h={180} fit="contain" radius="sm" /> : <Text size="sm">Drawing the QR code…</Text>}
        <Stack gap="xs" style={{ flex: 1, minWidth: 240 }}>
          <Text size="sm">The customer scans the QR code in their bank&apos;s app, or pastes this code:</Text>
          <CopyValue value={pix.qrCodeText} label="Pix code" />
          {expiresAt && <Text size="sm">Expires {formatDateTime(expiresAt)}.</Text>}
          {isHttpUrl(pix.qrCode) && (
            <Anchor href={pix.qrCode} target="_blank" rel="noreferrer noopener" size="sm">
              The gateway&apos;s QR image
            </Anchor>
          )}
        </Stack>
      </Group>
    </Card>
  );
}
