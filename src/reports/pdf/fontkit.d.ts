/**
 * The one function of fontkit 2 (which ships no types) that the report uses: it parses a font file,
 * or the face of a collection named by its PostScript name. Typed as unknown; `fonts.ts` states the
 * parts of a font it reads.
 */
declare module 'fontkit' {
  export function create(buffer: Uint8Array, postscriptName?: string): unknown;
}
