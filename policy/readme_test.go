package policy

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeDocumentsEveryKey fails when a policy key is missing from the
// README's "Policy files" section: every key a file may set is documented.
func TestReadmeDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "## Policy files")
	if start < 0 {
		t.Fatal(`README.md has no "## Policy files" section`)
	}
	section := readme[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	for _, table := range [][]string{nil, {"sandbox"}, {"env"}, {"rule"}} {
		for _, key := range knownKeys(table) {
			if key == "rule" || key == "sandbox" || key == "env" {
				continue // tables, shown by their headers
			}
			if !strings.Contains(section, "`"+key+"`") && !strings.Contains(section, "\n"+key+" = ") &&
				!strings.Contains(section, "    "+key+" = ") {
				t.Errorf("policy key %s.%s is not documented in README.md's Policy files section", strings.Join(table, "."), key)
			}
		}
	}
}
