package policy

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDefaultGenOutOfReview: default_gen.go carries the header Go tools
// recognise as generated, and .gitattributes marks it linguist-generated, so
// reviews fold it and read default.toml instead.
func TestDefaultGenOutOfReview(t *testing.T) {
	f, err := os.Open("default_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first, _ := bufio.NewReader(f).ReadString('\n')
	if !regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`).MatchString(strings.TrimSpace(first)) {
		t.Errorf("default_gen.go starts with %q, not a \"// Code generated ... DO NOT EDIT.\" line", first)
	}
	attrs, err := os.ReadFile("../.gitattributes")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(attrs), "\n"), "policy/default_gen.go linguist-generated=true") {
		t.Error(".gitattributes does not mark policy/default_gen.go linguist-generated=true")
	}
}
