import { realpath } from 'node:fs/promises'
import path from 'node:path'
import { ConnectorConfigError } from './connector.js'

function isWithin(base: string, candidate: string): boolean {
  const rel = path.relative(base, candidate)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel)
}

/**
 * Resolves `relative` inside `base` by its text alone, refusing absolute paths and `..` that
 * climbs out: enough while `base` does not exist yet, since there are no symlinks to follow.
 */
export function resolveLexically(base: string, relative: string, field: string): string {
  if (relative.includes('\0')) throw new ConnectorConfigError(field, 'must not contain NUL characters')
  if (path.isAbsolute(relative)) throw new ConnectorConfigError(field, `"${relative}" is absolute; give a path relative to the data folder`)
  const target = path.resolve(base, relative)
  if (!isWithin(base, target)) throw new ConnectorConfigError(field, `"${relative}" leads outside the data folder`)
  return target
}

/**
 * Resolves `relative` inside the existing folder `base` and returns the real path, refusing
 * (ConnectorConfigError on `field`) absolute paths, `..` that climbs out, and symlinks — the
 * target's or any folder's on the way — that lead outside `base`. Parts that do not exist yet
 * are kept as written: whatever creates them creates plain entries inside `base`.
 *
 * The check and the later use are not atomic; it keeps pipeline settings from reaching outside
 * the data folder, not a local user who can plant symlinks in it at the right moment.
 */
export async function resolveInside(base: string, relative: string, field: string): Promise<string> {
  const target = resolveLexically(base, relative, field)
  const realBase = await realpath(base)
  const missing: string[] = []
  let probe = target
  for (;;) {
    let real: string
    try {
      real = await realpath(probe)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      missing.unshift(path.basename(probe))
      probe = path.dirname(probe)
      continue
    }
    const resolved = path.join(real, ...missing)
    if (!isWithin(realBase, resolved)) throw new ConnectorConfigError(field, `"${relative}" leads outside the data folder through a symbolic link`)
    return resolved
  }
}
