package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/draconform/draconform/tools/lang/spec"
	"github.com/spf13/pflag"
)

func schemaCmd(fs *pflag.FlagSet) action {
	return func(_ context.Context, args []string, s Streams) int {
		data, err := json.MarshalIndent(spec.Schema(), "", "  ")
		if err != nil {
			fmt.Fprintln(s.Err, err)
			return 1
		}
		fmt.Fprintln(s.Out, string(data))
		return 0
	}
}
