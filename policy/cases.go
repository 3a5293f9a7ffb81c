package policy

import (
	"bytes"
	"fmt"
	"os"

	"github.com/pelletier/go-toml/v2"
)

// Case is one [[case]] of a policy test table: a script and the verdict it
// must get. Rule, when set, must be the rule that decides.
//
//	[[case]]
//	script = "git push --force origin main"
//	expect = "ask"
//	rule = "git-push-force"   # optional
type Case struct {
	Script string  `toml:"script"`
	Expect Verdict `toml:"expect"`
	Rule   string  `toml:"rule"`
	Line   int     `toml:"-"`
}

// CaseResult is the outcome of one Case.
type CaseResult struct {
	Case     Case
	Decision Decision
	OK       bool
}

// LoadCases reads a policy test table (TOML, a list of [[case]]).
func LoadCases(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading cases: %w", err)
	}
	var file struct {
		Case []Case `toml:"case"`
	}
	if err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&file); err != nil {
		return nil, decodeErrors(err, path)
	}
	v := &validator{file: path, data: data}
	for i := range file.Case {
		c := &file.Case[i]
		key := fmt.Sprintf("case.%d", i)
		if p := v.pos(key); p != nil {
			c.Line = p.Line
		}
		if c.Script == "" {
			v.add(key, fmt.Sprintf("case %d has no script", i+1), "")
		}
		if !c.Expect.valid() {
			v.add(key+".expect", fmt.Sprintf("case %d: expect is %q: want allow, ask or deny", i+1, c.Expect), "")
		}
	}
	if len(file.Case) == 0 {
		v.add("", "no [[case]] in the file", "")
	}
	if len(v.errs) > 0 {
		return nil, v.errs
	}
	return file.Case, nil
}

// Test runs cases against p.
func (p *Policy) Test(cases []Case) []CaseResult {
	out := make([]CaseResult, len(cases))
	for i, c := range cases {
		d := p.Check(c.Script)
		out[i] = CaseResult{Case: c, Decision: d, OK: d.Verdict == c.Expect && (c.Rule == "" || c.Rule == d.Rule)}
	}
	return out
}
