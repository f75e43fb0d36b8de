package localproc

import "testing"

func TestFreePortsAreBelowTheEphemeralRange(t *testing.T) {
	lo, hi := listenRange()
	if hi == 0 {
		t.Skip("this machine's ephemeral port range leaves no room below it")
	}
	ports, err := FreePorts(4)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p < lo || p >= hi {
			t.Errorf("port %d is outside [%d, %d): an outgoing connection could take it before the component binds it", p, lo, hi)
		}
	}
}
