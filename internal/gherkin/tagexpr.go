package gherkin

import (
	"fmt"
	"strings"
	"unicode"
)

// tagExpr is a parsed tag expression: it reports whether a scenario with
// the given tags (without "@") is selected.
type tagExpr func(tags map[string]bool) bool

// parseTagExpr parses a tag expression in Cucumber's syntax (and, or, not,
// parentheses) or godog's (&&, a comma for or, ~ for not), or a mix of both:
//
//	@payments and not (@funded or @isolation)
//	@payments && ~@funded,~@isolation
//
// The comma binds tighter than && and "and", which bind tighter than "or"
// and ||, as in godog. The "@" of a tag may be left out. An empty expression
// selects every scenario. A malformed expression is an error naming it.
func parseTagExpr(src string) (tagExpr, error) {
	if strings.TrimSpace(src) == "" {
		return func(map[string]bool) bool { return true }, nil
	}
	toks, err := tokenizeTags(src)
	if err != nil {
		return nil, fmt.Errorf("malformed tag expression %q: %w", src, err)
	}
	p := &tagParser{toks: toks}
	e, err := p.or()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	if err != nil {
		return nil, fmt.Errorf("malformed tag expression %q: %w", src, err)
	}
	return e, nil
}

func tokenizeTags(src string) ([]string, error) {
	var toks []string
	rs := []rune(src)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')' || r == ',' || r == '~' || r == '!':
			toks = append(toks, string(r))
			i++
		case r == '&' || r == '|':
			if i+1 >= len(rs) || rs[i+1] != r {
				return nil, fmt.Errorf("%q must be doubled (%s%s)", string(r), string(r), string(r))
			}
			toks = append(toks, string([]rune{r, r}))
			i += 2
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune("(),~!&|", rs[j]) {
				j++
			}
			toks = append(toks, string(rs[i:j]))
			i = j
		}
	}
	return toks, nil
}

type tagParser struct {
	toks []string
	pos  int
}

func (p *tagParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *tagParser) or() (tagExpr, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "or" || p.peek() == "||" {
		op := p.toks[p.pos]
		p.pos++
		right, err := p.and()
		if err != nil {
			return nil, fmt.Errorf("after %q: %w", op, err)
		}
		l := left
		left = func(t map[string]bool) bool { return l(t) || right(t) }
	}
	return left, nil
}

func (p *tagParser) and() (tagExpr, error) {
	left, err := p.list()
	if err != nil {
		return nil, err
	}
	for p.peek() == "and" || p.peek() == "&&" {
		op := p.toks[p.pos]
		p.pos++
		right, err := p.list()
		if err != nil {
			return nil, fmt.Errorf("after %q: %w", op, err)
		}
		l := left
		left = func(t map[string]bool) bool { return l(t) && right(t) }
	}
	return left, nil
}

func (p *tagParser) list() (tagExpr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek() == "," {
		p.pos++
		right, err := p.unary()
		if err != nil {
			return nil, fmt.Errorf(`after ",": %w`, err)
		}
		l := left
		left = func(t map[string]bool) bool { return l(t) || right(t) }
	}
	return left, nil
}

func (p *tagParser) unary() (tagExpr, error) {
	tok := p.peek()
	switch tok {
	case "":
		return nil, fmt.Errorf("a tag is missing at the end")
	case "not", "~", "!":
		p.pos++
		e, err := p.unary()
		if err != nil {
			return nil, fmt.Errorf("after %q: %w", tok, err)
		}
		return func(t map[string]bool) bool { return !e(t) }, nil
	case "(":
		p.pos++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf(`a ")" is missing`)
		}
		p.pos++
		return e, nil
	case ")", ",", "and", "or", "&&", "||":
		return nil, fmt.Errorf("a tag is missing before %q", tok)
	}
	p.pos++
	name := strings.TrimPrefix(tok, "@")
	if name == "" || strings.Contains(name, "@") {
		return nil, fmt.Errorf("%q is not a tag", tok)
	}
	return func(t map[string]bool) bool { return t[name] }, nil
}
