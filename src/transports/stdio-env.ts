/**
 * The environment a stdio server starts with: a short list of variables programs need to run at all,
 * plus what the server's entry gives. Inheriting everything would hand every server the parent's
 * secrets (API keys, tokens) and its NODE_OPTIONS.
 */
const INHERITED = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  // Windows needs these to start most programs.
  "SYSTEMROOT",
  "SystemRoot",
  "COMSPEC",
  "PATHEXT",
  "WINDIR",
  "APPDATA",
  "LOCALAPPDATA",
  "USERPROFILE",
  "PROGRAMDATA",
  "TEMP",
  "TMP",
];

export function minimalEnvironment(extra: Record<string, string> = {}, from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = from[name];
    // Values starting with "()" are exported shell functions: never pass those on.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return { ...env, ...extra };
}
