package snapshot

import (
	"os"
	"strings"
	"testing"
)

// A folder's entries are none both when it is missing and when it is
// empty: the folder itself must be an item, or a run that makes it empty
// (the kubelet's /var/log/containers) or removes it leaves no trace.
func TestAMissingFolderIsNotAnEmptyOne(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after bool // the folder is there
		want          string
	}{
		{"made empty", false, true, "file ROOT/watched appeared"},
		{"removed empty", true, false, "file ROOT/watched disappeared"},
		{"there, empty, both times", true, true, ""},
		{"missing both times", false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newFakeHost(t)
			s := h.sources()
			s.Dirs = append(s.Dirs, Dir{h.path("watched"), 1})
			there := func(yes bool) {
				if yes {
					h.mkdir("watched")
				} else if err := os.RemoveAll(h.path("watched")); err != nil {
					t.Fatal(err)
				}
			}
			there(tc.before)
			before := take(t, s)
			there(tc.after)
			got := rooted(h, Diff(before, take(t, s)))
			if got != tc.want {
				t.Errorf("Diff says %q; want %q", got, tc.want)
			}
		})
	}
}

// nodePlaces are the folders outside /var/lib/draconform that a kubelet,
// containerd or CNI writes to by default or always: the host snapshot
// must see each made (even empty) and each written into.
var nodePlaces = []string{
	"/var/log/containers", "/var/log/pods", "/run/mount", "/run/containerd", "/run/netns",
	"/etc/cni", "/opt/cni", "/var/lib/kubelet", "/var/lib/cni",
}

func TestTheHostSnapshotSeesTheNodesPlaces(t *testing.T) {
	for _, place := range nodePlaces {
		t.Run(place, func(t *testing.T) {
			// Made, empty, by the run.
			h := newFakeHost(t)
			s := h.sources()
			s.Dirs = hostDirsUnder(h)
			before := take(t, s)
			h.mkdir(place)
			if got, want := rooted(h, Diff(before, take(t, s))), "file ROOT"+place+" appeared"; !strings.Contains(got, want) {
				t.Errorf("made empty: Diff says %q; want %q", got, want)
			}
			// There before; the run writes into it.
			before = take(t, s)
			h.write(place+"/left", "x")
			if got, want := rooted(h, Diff(before, take(t, s))), "file ROOT"+place+"/left appeared"; got != want {
				t.Errorf("written into: Diff says %q; want %q", got, want)
			}
		})
	}
}

// hostDirsUnder is HostSources' folders moved under h's root.
func hostDirsUnder(h *fakeHost) []Dir {
	var out []Dir
	for _, d := range HostSources().Dirs {
		out = append(out, Dir{h.path(d.Path), d.Depth})
	}
	return out
}

// rooted renders differences one a line with h's root shortened to ROOT.
func rooted(h *fakeHost, diffs []Difference) string {
	var lines []string
	for _, d := range diffs {
		lines = append(lines, strings.ReplaceAll(d.String(), h.root, "ROOT"))
	}
	return strings.Join(lines, "\n")
}
