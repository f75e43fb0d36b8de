package steps

import (
	"context"
	"testing"
	"time"
)

func TestPhasesAddUpAndANilOneStopsTheAdding(t *testing.T) {
	p := &Phases{}
	ctx := WithPhases(context.Background(), p)
	AddPhase(ctx, PhaseWaiting, time.Second)
	AddPhase(ctx, PhaseWaiting, time.Second)
	AddPhase(WithPhases(ctx, nil), PhaseWaiting, time.Hour)
	AddPhase(context.Background(), PhaseWaiting, time.Hour)
	if got := p.Seconds()[PhaseWaiting]; got != 2 {
		t.Errorf("waiting %v s, want 2: a part measured whole, or a context without phases, adds nothing", got)
	}
}
