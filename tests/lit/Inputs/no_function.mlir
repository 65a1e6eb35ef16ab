// A module with no function: stablehlo-refine-shapes fails without a diagnostic.
module {
}
