/**
 * JSON for display that no merchant-supplied text can disguise: bidirectional
 * controls (a right-to-left override turns "bidi-\u202Egnp.exe" into what
 * reads as "bidi-exe.png") and invisible characters are shown as their
 * escapes, which is still the same JSON.
 */
const DISGUISING = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;

export const escapeDisguising = (text: string) => text.replace(DISGUISING, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);

export const displayJson = (value: unknown) => escapeDisguising(JSON.stringify(value, null, 2));
