/** A server's start that needs a person to authorize it (server-runtime.ts): the error that says so. */
import { AuthRequiredError } from "../auth/errors.js";

/** The same error, saying which server and what to run (the `down` reason reads it). */
export function authorizationRequired(error: AuthRequiredError, server: string): AuthRequiredError {
  return new AuthRequiredError(
    `authorization required: server "${server}" (${error.url}) needs a person to authorize it; run \`mcp-switchboard login ${server}\``,
    {
      url: error.url,
      authorizationUrl: error.authorizationUrl,
      state: error.state,
      server,
      cause: error,
    },
  );
}
