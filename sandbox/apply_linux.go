//go:build linux

package sandbox

// Apply puts spec in force for this process and every process it will start, and
// reports what is really in force afterwards. It must be called before the process
// starts anything else. Placeholder: the real implementation lands with the sandbox work.
func Apply(spec Spec) (Applied, error) {
	return Applied{}, nil
}
