package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/draconform/draconform/tools/spec"
)

func schemaCmd(_ context.Context, args []string, s Streams) int {
	fs := newFlagSet("schema", s)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	data, err := json.MarshalIndent(spec.Schema(), "", "  ")
	if err != nil {
		fmt.Fprintln(s.Err, err)
		return 1
	}
	fmt.Fprintln(s.Out, string(data))
	return 0
}
