package policy

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Choice is a [sandbox] key that takes one of a few words; see SandboxChoices.
type Choice struct {
	Key     string   // the key in [sandbox]: "filesystem"
	Values  []string // the words it may take, strictest first
	Default string   // what the key means when no layer sets it
}

// sandboxFields are the fields of Sandbox the choices name, by key; a key
// that names no string field of Sandbox is a bug, found the first time a
// policy file is checked (built then, not when the program starts).
var sandboxFields = sync.OnceValue(func() map[string][]int {
	out := map[string][]int{}
	for _, c := range SandboxChoices {
		f, ok := tomlField(reflect.TypeFor[Sandbox](), c.Key)
		if !ok || f.Type.Kind() != reflect.String || !slices.Contains(c.Values, c.Default) {
			panic("policy: SandboxChoices: " + c.Key + " is not a string key of [sandbox] with its default among its values")
		}
		out[c.Key] = f.Index
	}
	return out
})

// SandboxChoice returns the choice of key, which must be one of SandboxChoices.
func SandboxChoice(key string) Choice {
	for _, c := range SandboxChoices {
		if c.Key == key {
			return c
		}
	}
	panic("policy: no [sandbox] choice " + key)
}

// field is the field of s that holds the choice.
func (c Choice) field(s *Sandbox) *string {
	return reflect.ValueOf(s).Elem().FieldByIndex(sandboxFields()[c.Key]).Addr().Interface().(*string)
}

// Allows reports whether v is one of the choice's words.
func (c Choice) Allows(v string) bool { return slices.Contains(c.Values, v) }

// Looser reports whether a is less strict than b (both among the words).
func (c Choice) Looser(a, b string) bool {
	return slices.Index(c.Values, a) > slices.Index(c.Values, b)
}

// List writes the words for a person: "read-only, workspace-write or off".
func (c Choice) List() string {
	n := len(c.Values)
	return strings.Join(c.Values[:n-1], ", ") + " or " + c.Values[n-1]
}

// problem says why v is not one of the words, in the loader's words.
func (c Choice) problem(v string) string {
	return fmt.Sprintf("%s is %q: want %s", c.Key, v, strings.Join(c.Values, " or "))
}

// WithDefaults returns s with each choice no layer set at its default.
func (s Sandbox) WithDefaults() Sandbox {
	for _, c := range SandboxChoices {
		if f := c.field(&s); *f == "" {
			*f = c.Default
		}
	}
	return s
}

// Check returns an error for the first value of s outside its set: a word
// that is not one of its choice's (empty is the default), or a negative
// max_processes. The loader reports the same problems with their positions.
func (s Sandbox) Check() error {
	for _, c := range SandboxChoices {
		if v := *c.field(&s); v != "" && !c.Allows(v) {
			return errors.New(c.problem(v))
		}
	}
	if s.MaxProcesses < 0 {
		return errors.New(maxProcessesProblem)
	}
	return nil
}

const maxProcessesProblem = "max_processes is negative: want 0 (the default bound) or more"
