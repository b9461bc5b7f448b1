package record

import (
	"fmt"
	"strconv"
	"strings"
)

// Product is an active product of the target's catalog.
type Product struct {
	ID          int64  `json:"id"`
	SubCategory string `json:"sub_category"`
	BasePrice   int64  `json:"base_price"`
	FinalPrice  int64  `json:"final_price"`
	// Operator is the operator's name (section 2.1 operator.name): the
	// destination number of a payment is one of the operator's.
	Operator string `json:"operator,omitempty"`
}

// Method is a gateway payment method of the target.
type Method struct {
	ID             int64 `json:"id"`
	MinimumPayment int64 `json:"minimum_payment"`
}

// Catalog is what the load tester learns about the target before a run:
// the active products (through sync with the main token), the active sub
// categories, and the gateway payment methods.
type Catalog struct {
	Products      []Product `json:"products"`
	SubCategories []string  `json:"sub_categories"`
	Methods       []Method  `json:"methods"`
}

// MaxPrice is the highest price a payment for p can be charged: the
// recalculated value is not known in advance, so both prices bound it.
func (p Product) MaxPrice() int64 { return max(p.BasePrice, p.FinalPrice) }

// Restrict returns the catalog with only the products whose id or sub
// category is listed in only ("1001", "prabayar"); cat itself when only is
// empty.
func (cat *Catalog) Restrict(only []string) (*Catalog, error) {
	if len(only) == 0 {
		return cat, nil
	}
	want := map[string]bool{}
	for _, o := range only {
		want[strings.TrimSpace(o)] = true
	}
	out := &Catalog{Methods: cat.Methods}
	subCats := map[string]bool{}
	for _, p := range cat.Products {
		if want[strconv.FormatInt(p.ID, 10)] || want[p.SubCategory] {
			out.Products = append(out.Products, p)
			subCats[p.SubCategory] = true
		}
	}
	for _, sc := range cat.SubCategories {
		if subCats[sc] {
			out.SubCategories = append(out.SubCategories, sc)
		}
	}
	if len(out.Products) == 0 {
		return nil, fmt.Errorf("products %s: no active product of the catalog has one of these ids or sub categories", strings.Join(only, ","))
	}
	return out, nil
}
