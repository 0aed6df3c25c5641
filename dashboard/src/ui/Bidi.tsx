/**
 * Text a merchant or their customers typed (an externalId, a customer's name
 * or e-mail, a description, a URL), shown as typed. It is isolated (<bdi>), so
 * a right-to-left name does not reorder the text around it, and its explicit
 * direction controls are shown, not applied: `bidi-\u202Egnp.exe` reads
 * "bidi-[U+202E]gnp.exe", never "bidi-exe.png". Copy buttons keep the exact
 * value.
 */
import type { CSSProperties } from 'react';

/** Embeddings, overrides, isolates and marks: what can make text display in another order than it is stored. */
const CONTROL = /([\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069])/;

const NAMES: Record<string, string> = {
  '\u061C': 'Arabic letter mark',
  '\u200E': 'left-to-right mark',
  '\u200F': 'right-to-left mark',
  '\u202A': 'left-to-right embedding',
  '\u202B': 'right-to-left embedding',
  '\u202C': 'pop directional formatting',
  '\u202D': 'left-to-right override',
  '\u202E': 'right-to-left override',
  '\u2066': 'left-to-right isolate',
  '\u2067': 'right-to-left isolate',
  '\u2068': 'first strong isolate',
  '\u2069': 'pop directional isolate',
};

const MARKER: CSSProperties = { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: '0.8em', border: '1px solid currentColor', borderRadius: 3, padding: '0 2px', margin: '0 1px' };

export const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The value with each direction control replaced by a visible marker naming it (for titles and plain-text places). */
export function showControls(value: string): string {
  return value.replace(new RegExp(CONTROL.source, 'g'), (char) => `[${codePoint(char)}]`);
}

export function Bidi({ children }: { children: string | null | undefined }) {
  if (children == null) return null;
  const parts = children.split(CONTROL);
  return (
    <bdi>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <span key={index} style={MARKER} title={`${NAMES[part]} (${codePoint(part)}), shown instead of applied`}>
            {codePoint(part)}
          </span>
        ) : (
          part
        ),
      )}
    </bdi>
  );
}
