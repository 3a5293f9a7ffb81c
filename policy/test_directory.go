package policy

import "strings"

// Round 22: a file database kept in the workdir's test directories
// (testdata/scratch.db, tests/fixtures/app.sqlite) is the tests' own, as
// one whose name says test is (dev_database.go): the next test run makes it
// again. A name that says production, staging or a backup still is not.

// testDirectories name the folders where a project keeps what its tests use.
var testDirectories = map[string]bool{"test": true, "tests": true, "testdata": true, "spec": true, "specs": true, "__tests__": true,
	"fixtures": true, "e2e": true, "testing": true}

// inTestDirectory reports whether the relative path f lies in one of the
// workdir's test directories, and its stem names nothing kept elsewhere.
func inTestDirectory(f, stem string) bool {
	dir, _ := pathDirBase(f)
	for part := range strings.SplitSeq(dir, "/") {
		if testDirectories[strings.ToLower(part)] {
			return devName("test_" + stem)
		}
	}
	return false
}

// pathDirBase splits a slash path at its last slash ("" for no directory).
func pathDirBase(f string) (dir, base string) {
	i := strings.LastIndexByte(f, '/')
	if i < 0 {
		return "", f
	}
	return f[:i], f[i+1:]
}
