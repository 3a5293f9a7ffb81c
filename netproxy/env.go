package netproxy

// Env is what a command needs to use the proxy at addr (host:port): the
// variables curl, git, pip, npm, go, cargo and most HTTP libraries read.
// Loopback stays direct, so a command's own servers are reached without the
// proxy.
func Env(addr string) map[string]string { return envFor("http://" + addr) }

// GrantEnv is Env with a grant's credential in the proxy URL, for the one
// command the grant is for (see Grants). The user name is a constant: git
// asks for a password it lacks, never for a user name it has.
func GrantEnv(addr, token string) map[string]string {
	return envFor("http://stockade:" + token + "@" + addr)
}

func envFor(url string) map[string]string {
	noProxy := "localhost,127.0.0.1,::1"
	return map[string]string{
		"HTTP_PROXY": url, "HTTPS_PROXY": url, "ALL_PROXY": url, "NO_PROXY": noProxy,
		"http_proxy": url, "https_proxy": url, "all_proxy": url, "no_proxy": noProxy,
		// npm reads its own settings first; cargo has its own too.
		"npm_config_proxy": url, "npm_config_https_proxy": url, "npm_config_noproxy": noProxy,
		"CARGO_HTTP_PROXY": url,
	}
}

// OffEnv is what a command with no network gets so that package managers
// fail at once instead of retrying for minutes (npm waits 75 s on a name
// that does not resolve): no retries for npm and pip. A value the user set
// is kept.
func OffEnv() map[string]string {
	return map[string]string{"npm_config_fetch_retries": "0", "PIP_RETRIES": "0"}
}

// RetryEnv is what a command behind the proxy gets so that a refused host
// costs seconds, not npm's 75 s of retries: one retry, after 1 to 2 s. A
// value the user set is kept.
func RetryEnv() map[string]string {
	return map[string]string{"npm_config_fetch_retries": "1", "npm_config_fetch_retry_mintimeout": "1000",
		"npm_config_fetch_retry_maxtimeout": "2000", "PIP_RETRIES": "1"}
}
