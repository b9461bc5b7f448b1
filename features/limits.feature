@limits
Feature: Limits
  The limits of section 8 of the document: the page size of the catalog
  synchronization, the length of the partner transaction id and of the shift
  code, the format of a destination number, and the coin conversion.

  Scenario: A page size of 100 is accepted
    Given the partner's main account
    When the main account synchronizes the "prabayar" catalog with 100 products per page
    Then the answer comes back with status 200 and the message "OK"
    And no more than 100 products are on the page

  Scenario: A page size over 100 is refused
    Given the partner's main account
    When the main account synchronizes the "prabayar" catalog with 101 products per page
    Then the answer is refused with status 400 and the message "pageSize maksimal 100."

  @reading:gateway-remainder-is-created
  Scenario: A partner transaction id of 50 characters is accepted
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway with a partner transaction id of 50 characters
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."

  Scenario: A partner transaction id over 50 characters is refused
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway with a partner transaction id of 51 characters
    Then the payment is refused with status 400 and the message "ID transaksi mitra maksimal 50 karakter."

  @reading:gateway-remainder-is-created
  Scenario: A shift code of 50 characters is accepted
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway with a shift code of 50 characters
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."

  Scenario: A shift code over 50 characters is refused
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway with a shift code of 51 characters
    Then the payment is refused with status 400 and the message "Kode shift maksimal 50 karakter."

  Scenario Outline: Lengths are counted in characters, not bytes (<field> of <length> multi-byte characters)
    Given a cashier provisioned by the partner
    When the cashier pays for a product through a payment gateway with a <field> of <length> multi-byte characters
    Then the answer comes back with status <status> and the message "<message>"

    Examples:
      | field                  | length | status | message                                  |
      | partner transaction id | 50     | 200    | Pembayaran berhasil diproses.            |
      | partner transaction id | 51     | 400    | ID transaksi mitra maksimal 50 karakter. |
      | shift code             | 50     | 200    | Pembayaran berhasil diproses.            |
      | shift code             | 51     | 400    | Kode shift maksimal 50 karakter.         |

  Scenario Outline: A destination number of 10 to 13 digits starting with 08 is accepted (<digits> digits)
    Given a cashier provisioned by the partner
    When the cashier lists "prabayar" products for the number "<number>"
    Then the answer comes back with status 200 and the message "OK"

    Examples:
      | digits | number        |
      | 10     | 0812345678    |
      | 13     | 0812345678901 |

  Scenario Outline: A destination number outside 10 to 13 digits or not starting with 08 is refused (<case>)
    Given a cashier provisioned by the partner
    When the cashier lists "prabayar" products for the number "<number>"
    Then the answer is refused with status 400 and the message "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka."

    Examples:
      | case                            | number         |
      | 9 digits                        | 081234567      |
      | 14 digits                       | 08123456789012 |
      | starting with 09                | 0912345678     |
      | a letter among the digits       | 08123a45678    |
      | a slash among the digits        | 0812/3456789   |
      | a colon among the digits        | 0812:3456789   |

  @funded @reading:coin-value-rounds-down
  Scenario: The profile values two coins at one rupiah
    Given the funded customer of the partner
    When the funded customer reads its profile
    Then the answer comes back with status 200 and the message "OK"
    And the coin value is half the number of coins, rounded down

  @funded @reading:coins-only-no-balance @reading:wallet-debited
  Scenario: A payment with coins only takes two coins for each rupiah
    Given the funded customer of the partner
    When the funded customer pays for the cheapest product with coins only
    Then the answer comes back with status 200 and the message "Pembayaran berhasil diproses."
    And no balance is taken and the coins taken are twice their rupiah value
    And the wallet is debited by exactly the amounts reported
