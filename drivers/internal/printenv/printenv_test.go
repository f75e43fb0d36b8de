package printenv

import (
	"bytes"
	"context"
	"testing"
	"time"
)

func TestPrint(t *testing.T) {
	var out bytes.Buffer
	err := Print(&out, []string{
		"PATH=/bin",
		"DRACONFORM_CLAIM=ns/c",
		"DRACONFORM_0_SHARE_ID=",
		"DRACONFORM_0_DEVICE=shared-0",
		"DRACONFORMX=not ours",
		"DRACONFORM_0_CONSUMED_SHARES=2",
		"DRACONFORM_1_REQUEST=a=b",
		"GPU_DEVICE_0_MEMORY=40Gi",
		"MULTI=one\ntwo",
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every variable: another driver's names its own (GPU_DEVICE_0_MEMORY),
	// and a value's newline stays on its line.
	want := "DRACONFORMX=not ours\n" +
		"DRACONFORM_0_CONSUMED_SHARES=2\n" +
		"DRACONFORM_0_DEVICE=shared-0\n" +
		"DRACONFORM_0_SHARE_ID=\n" +
		"DRACONFORM_1_REQUEST=a=b\n" +
		"DRACONFORM_CLAIM=ns/c\n" +
		"GPU_DEVICE_0_MEMORY=40Gi\n" +
		"MULTI=one\\ntwo\n" +
		"PATH=/bin\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestRunPrintsThenWaitsForCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Run(ctx, &out, []string{"DRACONFORM_CLAIM=ns/c"}) }()
	select {
	case err := <-done:
		t.Fatalf("Run returned before cancel: %v", err)
	default:
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if got := out.String(); got != "DRACONFORM_CLAIM=ns/c\n" {
		t.Errorf("output = %q", got)
	}
}
