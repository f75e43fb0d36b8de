package shards

import (
	"slices"
	"testing"
)

func TestShardEnvSharesTheCoresOutAmongTheCellsAtOnce(t *testing.T) {
	base := []string{"PATH=/usr/bin"}
	for _, tt := range []struct {
		name               string
		env                []string
		cores, cellsAtOnce int
		want               string // the GOMAXPROCS added, "" for none
	}{
		{"4 cells on 2 cores", base, 2, 4, "GOMAXPROCS=1"},
		{"2 cells on 2 cores", base, 2, 2, "GOMAXPROCS=1"},
		{"4 cells on 12 cores", base, 12, 4, "GOMAXPROCS=3"},
		{"4 cells on 8 cores", base, 8, 4, "GOMAXPROCS=2"},
		{"4 cells on 3 cores", base, 3, 4, "GOMAXPROCS=1"},
		{"one cell takes every core", base, 2, 1, ""},
		{"the user's GOMAXPROCS stands", []string{"GOMAXPROCS=2"}, 2, 4, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Env(slices.Clone(tt.env), tt.cores, tt.cellsAtOnce)
			var added string
			if len(got) > len(tt.env) {
				added = got[len(got)-1]
			}
			if added != tt.want || !slices.Equal(got[:len(tt.env)], tt.env) {
				t.Errorf("Env(%v, %d, %d) = %v, want %v plus %q", tt.env, tt.cores, tt.cellsAtOnce, got, tt.env, tt.want)
			}
		})
	}
}
