package steps

// The catalog fixture: a partner's catalog of every active sub category,
// read through product sync, from which payment scenarios choose their
// products.

import (
	"context"
	"errors"
	"net/http"
	"sort"

	"github.com/partnercommerce/conformance/internal/contract"
)

// product is one product of a catalog, with its money as int64.
type product struct {
	ID         int64
	Status     string
	BasePrice  int64
	FinalPrice int64
	// Operator is the operator.name the catalog shows.
	Operator string
	// SubCategory is the sub category the product was synchronized from.
	SubCategory string
}

// catalogRead is a partner's whole catalog as read by sync.
type catalogRead struct {
	products []product
	ex       *exchange // the last page read, for failure reports
	// refused is the first error answer of a sub category, which blocks
	// a scenario only when the catalog holds no product at all.
	refused error
}

// maxSyncPages bounds every walk through the pages of product sync.
const maxSyncPages = 1000

// catalog reads every product of the partner's catalog with the partner's
// main account, in every sub category of section 4.1 that is active: a
// fixture (a product a gateway method fits, an inactive product) may be in
// any of them. A sub category the target answers with another message than
// OK (not found, not yet available) holds no fixture. The first read of a
// scenario is a precondition (gather): it reads what payments need, then is
// kept for the rest of the scenario.
func (s *scenario) catalog(ctx context.Context, p partner) (catalogRead, error) {
	if c, ok := s.catalogs[p.label]; ok {
		return c, nil
	}
	main := &account{actor: "main account of " + p.label, partner: p, token: p.mainToken}
	var out catalogRead
	err := s.gather(func() error {
		for _, sub := range contract.SubCategories() {
			if err := s.readSubCategory(ctx, main, sub, &out); err != nil {
				return err
			}
		}
		if len(out.products) == 0 && out.refused != nil {
			return out.refused
		}
		return nil
	})
	if err != nil {
		return catalogRead{}, err
	}
	if s.catalogs == nil {
		s.catalogs = map[string]catalogRead{}
	}
	s.catalogs[p.label] = out
	return out, nil
}

// readSubCategory adds every product of one sub category to out.
func (s *scenario) readSubCategory(ctx context.Context, main *account, sub string, out *catalogRead) error {
	size := 100
	for page := 1; page <= maxSyncPages; page++ {
		pg := page
		sp, err := s.syncPage(ctx, main, sub, &pg, &size)
		if err == nil {
			if env, err := s.envelope(sp.ex); page == 1 && err == nil && sp.ex.Status == http.StatusOK && env.Message != contract.MsgOK {
				return nil
			}
			err = s.okPage(sp)
		}
		if se := (*stepError)(nil); page == 1 && errors.As(err, &se) {
			// A first page that is no catalog page (a sub category not
			// found or not yet available, whatever its body) holds no
			// product to pay for; its answer is the products scenarios'
			// to judge. A catalog
			// with no product at all is blocked by the first of them.
			if out.refused == nil {
				out.refused = err
			}
			return nil
		}
		if err != nil {
			return err
		}
		out.ex = sp.ex
		for _, m := range sp.products {
			// A payment needs a product's id and final price, nothing else:
			// the rest of the product is the products scenarios' to judge.
			pr := product{SubCategory: sub}
			for _, f := range []struct {
				path string
				dst  *int64
			}{{"id", &pr.ID}, {"pricing.final_price", &pr.FinalPrice}} {
				v, _ := lookup(m, f.path)
				n, isInt := integer(v)
				if !isInt {
					return s.failure(sp.ex, secProduct, "an integer id and pricing.final_price", "product %v lacks an integer id or final price", m["id"])
				}
				*f.dst = n
			}
			if v, ok := lookup(m, "pricing.base_price"); ok {
				pr.BasePrice, _ = integer(v)
			}
			pr.Status, _ = m["status"].(string)
			if op, ok := lookup(m, "operator.name"); ok {
				pr.Operator, _ = op.(string)
			}
			out.products = append(out.products, pr)
		}
		if int64(page) >= sp.pagination.TotalPages {
			break
		}
	}
	return nil
}

// activeByPrice returns the active products, those of an operator whose
// number prefixes the suite knows first (see destination), each group
// cheapest first.
func activeByPrice(ps []product) []product {
	var out []product
	for _, p := range ps {
		if p.Status == "active" {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ki, kj := contract.OperatorPrefixes(out[i].Operator) != nil, contract.OperatorPrefixes(out[j].Operator) != nil
		if ki != kj {
			return ki
		}
		return out[i].FinalPrice < out[j].FinalPrice
	})
	return out
}

// cheapest returns the cheapest active product of the partner's catalog.
func (s *scenario) cheapest(ctx context.Context, p partner) (product, error) {
	c, err := s.catalog(ctx, p)
	if err != nil {
		return product{}, err
	}
	act := activeByPrice(c.products)
	if len(act) == 0 {
		return product{}, s.notJudged("the catalog of " + p.label + " has no active product to pay for")
	}
	return act[0], nil
}
