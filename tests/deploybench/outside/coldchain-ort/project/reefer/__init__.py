"""reefer: spoilage-risk model for refrigerated pallets (accept / inspect / reject on arrival)."""
