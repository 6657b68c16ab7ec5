// A link may carry the token after '#token=' (a fragment never reaches a server or its logs):
// take it, drop it from the address and the history, and log in with it.
"use strict";
(() => {
  const match = /^#token=(.+)$/.exec(location.hash);
  if (!match) return;
  history.replaceState(null, "", location.pathname);
  document.getElementById("token").value = decodeURIComponent(match[1]);
  document.getElementById("login").submit();
})();
