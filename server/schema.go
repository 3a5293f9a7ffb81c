package server

import (
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
)

// bashSchema is the output schema of the bash tool: pipeline.Result, with the
// values its status and decision take. Every bash result fits it, whether it
// completed, started a background task or ran nothing; the fields each status
// sets are in the descriptions. Built on first use: every stockade process
// (`run`, `version`) links this package, and only `serve` needs it.
var bashSchema = sync.OnceValue(func() json.RawMessage {
	s := schemaFor[pipeline.Result]()
	s.Properties["status"].Enum = []any{pipeline.Completed, pipeline.Running, pipeline.Failed}
	s.Properties["decision"].Enum = []any{policy.Allow, policy.Ask, policy.Deny}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
})

// schemaFor is the JSON schema of T, as mcp.WithOutputSchema would make it.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{IgnoreInvalidTypes: true})
	if err != nil {
		panic(err)
	}
	return s
}
