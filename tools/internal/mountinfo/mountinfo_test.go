package mountinfo

import "testing"

func TestParse(t *testing.T) {
	line := `36 35 98:0 /mnt1 /mnt/with\040space rw,noatime master:1 - ext3 /dev/with\040a\040space rw,errors=continue`
	e, ok := Parse(line)
	if !ok || e.MountPoint != "/mnt/with space" || e.FSType != "ext3" || e.Source != "/dev/with a space" {
		t.Errorf("Parse = %+v, %v", e, ok)
	}
	if _, ok := Parse("36 35 98:0 /mnt1 /mnt rw"); ok {
		t.Error("a line without the separator parsed")
	}
	if got := Unescape(`a\134b\0`); got != `a\b\0` {
		t.Errorf("Unescape = %q", got)
	}
}
