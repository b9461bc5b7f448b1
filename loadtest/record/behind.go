package record

// mergeBehind widens g's span of falling behind by another shard's.
func (g *Generator) mergeBehind(o Generator) {
	if o.BehindFrom > 0 && (g.BehindFrom == 0 || o.BehindFrom < g.BehindFrom) {
		g.BehindFrom = o.BehindFrom
	}
	g.BehindUntil = max(g.BehindUntil, o.BehindUntil)
}
