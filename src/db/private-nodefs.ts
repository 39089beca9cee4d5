/**
 * PGlite's Node filesystem, with every file and directory private to the owner. PGlite runs
 * PostgreSQL in WebAssembly over Emscripten's file system, which ignores the umask PostgreSQL
 * sets and creates its files by an explicit chmod to the requested mode (0666 for the initial
 * database and every file opened with fopen): the process umask cannot stop that. So both ways
 * Emscripten gives a file its mode (creating the node, changing its mode) drop group and other
 * bits here.
 */
import { NodeFS } from '@electric-sql/pglite/nodefs';

const OWNER_ONLY = ~0o077;

/** The part of Emscripten's FS object this touches; both exist in PGlite 0.3 to 0.5. */
interface EmscriptenModes {
  mknod?: (path: string, mode: number, dev: number) => unknown;
  doChmod?: (stream: unknown, node: unknown, mode: number, dontFollow?: boolean) => unknown;
}

function ownerOnly(fs: EmscriptenModes): void {
  const { mknod, doChmod } = fs;
  if (mknod) fs.mknod = (path, mode, dev) => mknod.call(fs, path, mode & OWNER_ONLY, dev);
  if (doChmod) fs.doChmod = (stream, node, mode, dontFollow) => doChmod.call(fs, stream, node, mode & OWNER_ONLY, dontFollow);
}

/** NodeFS (PGlite's default for a directory) whose files are 0600 and directories 0700. */
export class PrivateNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const preRun = [...(emscriptenOpts.preRun ?? []), (mod: { FS: unknown }) => ownerOnly(mod.FS as EmscriptenModes)];
    return { emscriptenOpts: { ...emscriptenOpts, preRun } };
  }
}
