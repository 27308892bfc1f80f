// The mirror makes every file of its process private (umask 077: the mirror, its WAL,
// staging and spill files hold every payment record). An export written with -o is the
// user's file, not the mirror's: it gets the mode the user's own umask gives, whatever
// the command (a list, payrec sql, payrec metrics), so the umask is remembered here
// when the mirror changes it.

/** The process's umask before the mirror made it private; undefined while it has not. */
let userUmask: number | undefined;

/** Makes every file this process creates from here on private, remembering the user's umask. */
export function makeFilesPrivate(): void {
  const before = process.umask(0o077);
  userUmask ??= before;
}

/** The mode a new file made with `mode` gets under the user's own umask, or undefined when the umask is still the user's. */
export function userFileMode(mode: number): number | undefined {
  return userUmask === undefined ? undefined : mode & ~userUmask;
}
