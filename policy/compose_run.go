package policy

// Round 22 (C): docker compose run -v SRC:DST starts a one-off container
// with the host path SRC mounted, as docker run -v does (mountEffects): a
// key folder of the home mounted there is read by whatever the container
// runs.

// isComposeRun reports whether a compose invocation starts a one-off
// container (docker compose run, docker-compose run).
func isComposeRun(a *argv) bool {
	if a.subcommand != "compose" && a.name != "docker-compose" && a.name != "podman-compose" {
		return false
	}
	for _, p := range a.positionals {
		switch p {
		case "run":
			return true
		case "up", "exec", "build", "down", "ps", "logs", "pull", "config":
			return false
		}
	}
	return false
}
