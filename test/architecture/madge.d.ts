/** The part of madge's API the architecture tests use (the package ships no types). */
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  interface MadgeOptions {
    baseDir?: string;
    fileExtensions?: string[];
    detectiveOptions?: { ts?: { skipTypeImports?: boolean; skipAsyncImports?: boolean } };
  }
  export default function madge(path: string, options?: MadgeOptions): Promise<MadgeResult>;
}
