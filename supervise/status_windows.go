package supervise

// decodeStatus: on Windows the status is the exit code itself.
func decodeStatus(status int) (int, string) { return status, "" }
