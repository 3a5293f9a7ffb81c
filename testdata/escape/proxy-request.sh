# attack: an HTTP request the allowlist must not carry ($URL, with curl's
# extra arguments in $CURLARGS): an unlisted name, an IP literal, a listed
# name that resolves to loopback, a Host header naming another host, or a
# CONNECT tunnel to an unlisted name. Unsandboxed, $RESOLVE points the name
# at the test's listener directly.
# detected: the test's HTTP listener records every request it gets.
curl -sS --max-time 10 $RESOLVE $CURLARGS "$URL"
