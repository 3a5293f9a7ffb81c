package policy

import "testing"

// TestWorkdirPattern: a file-name pattern relative to the workdir names only
// paths inside it; anything that can reach outside, or whose value comes
// from an expansion other than the pattern itself, does not count.
func TestWorkdirPattern(t *testing.T) {
	inside := []string{"*.egg-info", "build/*", "*/__pycache__", "node_modules/.vite/deps_temp_*", "target/debug/incremental/*/", "[ab]*.o", "*"}
	outside := []string{"/tmp/*", "~/*", "../*", "a/../../*", ".*", "src/.*", ".[!.]*", "src/.?", `"$D"/*`, "${D}*", "$(pwd)/*", "`pwd`/*", "<(ls)", "{a,b}*", `x\*`, "-rf*", "a=b*"}
	for _, w := range inside {
		if !workdirPattern(w) {
			t.Errorf("workdirPattern(%q) = false, want true", w)
		}
	}
	for _, w := range outside {
		if workdirPattern(w) {
			t.Errorf("workdirPattern(%q) = true, want false", w)
		}
	}
}
