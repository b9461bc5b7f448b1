// Package readable writes numbers as the load tester's reports and
// messages read: counts and rupiah with thousands separators, durations to
// three significant digits, caps; and JSON bodies as failures show them,
// indented, folded and marked (Body).
package readable

import (
	"strconv"
	"strings"
	"time"
)

// Thousands writes n with a comma between each group of three digits
// (1,234,567), as counts and rupiah read in the reports.
func Thousands[T ~int | ~int64 | ~uint64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// Span is "lo" or "lo to hi", with thousands separators.
func Span(lo, hi int64) string {
	if lo == hi {
		return Thousands(lo)
	}
	return Thousands(lo) + " to " + Thousands(hi)
}

// Duration rounds d to three significant digits in its unit: 83.1 ms,
// 1.25 s, 512 µs, 2m3s for two minutes and more.
func Duration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	abs := d
	if abs < 0 {
		abs = -abs
	}
	unit, div := "ns", 1.0
	switch {
	case abs >= 2*time.Minute:
		return d.Round(time.Second).String()
	case abs >= time.Second:
		unit, div = "s", float64(time.Second)
	case abs >= time.Millisecond:
		unit, div = "ms", float64(time.Millisecond)
	case abs >= time.Microsecond:
		unit, div = "µs", float64(time.Microsecond)
	}
	v := float64(d) / div
	prec := 0
	switch a := max(v, -v); {
	case a < 10:
		prec = 2
	case a < 100:
		prec = 1
	}
	if unit == "ns" {
		prec = 0
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + " " + unit
}

// Plural writes n with the noun that fits it: "1 reading", "3 readings".
func Plural[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}

// Cap describes a cap: its value, or "none" for 0.
func Cap(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}
