package mutation

// Tally counts a run's results against the classification file.
type Tally struct {
	Tried, NotViable, Viable int
	Killed, Survived         int
	// KilledBy counts the killed mutants by the killer that killed them
	// ("start" for a server that did not start).
	KilledBy map[string]int
	// Survivors counts the classified survivors by class; Unclassified the
	// others.
	Survivors    map[Class]int
	Unclassified int
}

// Count tallies results with the classifications of their survivors.
func Count(results []Result, cls *Classifications) Tally {
	t := Tally{KilledBy: map[string]int{}, Survivors: map[Class]int{}}
	for _, r := range results {
		t.Tried++
		switch r.Status {
		case NotViable:
			t.NotViable++
			continue
		case Killed:
			t.Killed++
			t.KilledBy[r.KilledBy]++
		case Survived:
			t.Survived++
			if c, ok := cls.Find(r.Key); ok {
				t.Survivors[c.Class]++
			} else {
				t.Unclassified++
			}
		}
		t.Viable++
	}
	return t
}

// Judged is the number of mutants the score is taken over: the viable
// ones, without the equivalent ones (no client can tell them apart) and the
// open choices (a server may do what they do).
func (t Tally) Judged() int {
	return t.Viable - t.Survivors[Equivalent] - t.Survivors[OpenChoice]
}

// Score is the share of the judged mutants the run killed, 0 to 1; an
// unclassified survivor counts as missed.
func (t Tally) Score() float64 {
	if t.Judged() == 0 {
		return 0
	}
	return float64(t.Killed) / float64(t.Judged())
}
