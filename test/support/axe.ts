/**
 * axe-core in the page under test. Its source is evaluated through the
 * DevTools protocol (as Playwright's page.evaluate does), which the
 * dashboard's Content-Security-Policy does not govern: the page itself still
 * may not run inline scripts, and a script tag added to it would be refused.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { settled } from './browser';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export type Impact = 'minor' | 'moderate' | 'serious' | 'critical';

export interface AxeViolation {
  id: string;
  impact: Impact | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

/**
 * Every axe rule that applies (WCAG 2.x A/AA and best practices) on what the
 * page shows once its transitions have ended: a notice fading in or out has
 * its colours mid-way, which axe would read as too little contrast. Endless
 * animations (a loader) are not waited for.
 */
export async function axeScan(page: Page): Promise<AxeViolation[]> {
  await settled(page);
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Node = { target: unknown[]; failureSummary?: string; impact?: string };
    type Result = { id: string; impact: Impact | null; help: string; nodes: Node[] };
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Result[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String).join(' '), summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300) })),
    }));
  });
}

export const blocking = (violations: AxeViolation[]) => violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');

/** One line per failing element, enough to find it and see why. */
export function describeViolations(view: string, violations: AxeViolation[]): string[] {
  return violations.flatMap((v) => v.nodes.map((n) => `${view}: [${v.impact}] ${v.id} (${v.help}) at ${n.target}: ${n.summary}`));
}

/** Failing elements counted by rule, across views: `{ 'color-contrast (serious)': 483 }`. */
export function countByRule(violations: AxeViolation[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of violations) counts[`${v.id} (${v.impact})`] = (counts[`${v.id} (${v.impact})`] ?? 0) + v.nodes.length;
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
}
