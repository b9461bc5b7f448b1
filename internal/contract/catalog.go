package contract

import "slices"

// subCategories are the sub category codes of the document's table
// (section 4.1).
var subCategories = []string{"prabayar", "paket-data", "paket-sms"}

// SubCategories lists the sub category codes of the document's table
// (section 4.1), in its order.
func SubCategories() []string { return slices.Clone(subCategories) }
