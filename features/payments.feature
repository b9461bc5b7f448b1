@payments
Feature: Payments
  A customer account pays for a product and a destination number from its
  balance and coins and/or through a payment gateway. The service recalculates
  the value from the partner's own prices (sections 1, 2.5, 2.7, 3, 4.6 and 7
  of the document).

  @reading:required-field-missing-is-empty
  Scenario Outline: A payment with a required field left out is refused (<case>)
    Given a cashier provisioned by the partner
    When the cashier sends a payment with the <field> <how>
    Then the payment is refused with status 400 and the message "<message>"

    Examples:
      | case                             | field                  | how     | message                          |
      | no product                       | product                | missing | Produk wajib dipilih.            |
      | no destination number            | destination number     | missing | Nomor tujuan wajib diisi.        |
      | empty destination number         | destination number     | empty   | Nomor tujuan wajib diisi.        |
      | no payment method                | payment method         | missing | Metode pembayaran wajib dipilih. |
      | no partner transaction id        | partner transaction id | missing | ID transaksi mitra wajib diisi.  |
      | empty partner transaction id     | partner transaction id | empty   | ID transaksi mitra wajib diisi.  |

  @reading:unlisted-method-not-available
  Scenario: A payment method that is not offered is refused
    Given a cashier provisioned by the partner
    When the cashier pays with a payment method that is not offered
    Then the payment is refused with status 400 and the message "Metode pembayaran tidak tersedia."

  @funded @reading:use-flags-left-out-are-off
  Scenario Outline: The balance and coin method needs balance or coins to be chosen (<case>)
    Given the funded customer of the partner
    When the funded customer pays with the balance and coin method with <choice>
    Then the payment is refused with status 400 and the message "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu."

    Examples:
      | case             | choice                            |
      | nothing chosen   | neither balance nor coins chosen  |
      | both turned off  | balance and coins both turned off |

  Scenario: A reused partner transaction id is always refused
    Given a cashier provisioned by the partner
    And the cashier paid for a product through a payment gateway
    When the cashier pays again with the same partner transaction id
    Then the payment is refused with status 409 and the message "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."
    When the cashier pays again with the same partner transaction id for another product and number
    Then the payment is refused with status 409 and the message "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."

  @funded
  Scenario: A reused partner transaction id never debits the wallet twice
    Given the funded customer of the partner
    And the funded customer paid for the cheapest product from balance and coins
    When the funded customer pays again with the same partner transaction id
    Then the payment is refused with status 409 and the message "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."
    When the funded customer pays again with the same partner transaction id for another product and number
    Then the payment is refused with status 409 and the message "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."
    And the wallet was debited only once, by the first payment

  Scenario: A reused partner transaction id with nothing chosen to pay from meets two rows, and either is the answer
    Given a cashier provisioned by the partner
    And the cashier paid for a product through a payment gateway
    When the cashier pays again with the same partner transaction id, with the balance and coin method and neither balance nor coins chosen
    Then the payment is refused with status 409 and the message "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.", or with status 400 and the message "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu."

  @isolation
  Scenario: Another partner may use the partner's transaction id, or be refused it as used
    Given a cashier provisioned by the partner
    And the cashier paid for a product through a payment gateway
    And a cashier of the other partner
    When the other partner's cashier pays for a product through a payment gateway with the partner transaction id of the cashier's payment
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses.", or with status 409 and the message "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."

  @funded @reading:charged-final-price @reading:paid-processing @reading:no-remainder-fields
  Scenario: A payment fully covered by balance and coins is paid
    Given the funded customer of the partner
    When the funded customer pays for the cheapest product from balance and coins
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And the payment is paid, with a documented transaction status
    And the payment method is the balance and coin method, with code BALANCE, gateway SALDO and type COIN
    And the transaction number contains a slash and the partner transaction id is echoed
    And the amount charged is the final price in the payer's own catalog
    And no payment through a gateway is required
    And the developer notes are present

  @funded @reading:wallet-debited
  Scenario: Balance is used first and coins are untouched when the balance suffices
    Given the funded customer of the partner
    When the funded customer pays for the cheapest product from balance and coins
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And the whole price is taken from the balance and no coins are taken
    And the wallet is debited by exactly the amounts reported

  @split-payment @reading:wallet-debited @reading:short-balance-all-used
  Scenario: When the balance is short, all of it is used and coins make up the rest
    Given the split-payment customer of the partner
    When the split-payment customer pays for a product dearer than its balance from balance and coins
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And balance and coins together pay no more than the total
    And the whole balance is used and coins make up the rest
    And the wallet is debited by exactly the amounts reported

  @mixed-payment @reading:wallet-debited
  Scenario: A payment that takes the balance and leaves the rest to a payment gateway leaves the wallet as it reports
    Given the mixed-payment customer of the partner
    When the mixed-payment customer pays from its balance for a product dearer than it, the rest through a payment gateway
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And the payment takes from the mixed-payment customer's wallet as the document splits it
    And a remainder is due through the payment gateway
    When the mixed-payment customer reads its profile
    Then the mixed-payment customer's wallet holds what the payments reported leave

  @funded
  Scenario: Coins are spent only when the cashier asks for them
    Given the funded customer of the partner
    When the funded customer pays for a product through a payment gateway without balance or coins
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And no coins are taken

  @reading:charged-final-price @reading:gateway-remainder-is-created
  Scenario: A remainder not covered by balance or coins goes to the payment gateway
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And a remainder is due through the payment gateway
    And the amount charged is the final price in the payer's own catalog
    And the transaction number contains a slash and the partner transaction id is echoed
    And the developer notes are present

  @funded
  Scenario: A product that is not available for sale cannot be paid
    Given the funded customer of the partner
    When the funded customer pays for an inactive product of the catalog from balance and coins
    Then the payment is not created

  Scenario: A product that is not available for sale cannot be paid from an empty wallet either
    Given a cashier provisioned by the partner
    When the cashier pays for an inactive product of the catalog from balance and coins
    Then the payment is not created

  Scenario Outline: Optional fields may be null (<field>)
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway with the <field> null
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."

    Examples:
      | field        |
      | promotion id |
      | parts        |
      | shift code   |

  @unprocessable-payment @funded @reading:unprocessable-any-message
  Scenario: A payment that cannot be processed yet takes nothing from the wallet
    Given the funded customer of the partner
    When the funded customer pays for the product that cannot be processed yet
    Then the payment is refused with status 422 and a message
    And nothing was taken from the wallet

  @price-plan @reading:price-plan-message
  Scenario: A payment by a partner without an active price plan carries the price plan message
    Given a cashier of the partner whose price plan is not active
    When the unconfigured partner's cashier pays for a product of the partner's catalog from balance and coins
    Then the answer carries the message "Price plan API mitra belum dikonfigurasi, hubungi tim <operator_team> untuk informasi lebih lanjut." naming the operator team

  @isolation @reading:charged-final-price
  Scenario: Each partner is charged its own final price
    Given a cashier of the other partner
    When the other partner's cashier pays for a product through a payment gateway
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And the amount charged is the final price in the payer's own catalog
