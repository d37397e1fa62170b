// HWY_EXPORT and GRIDSAMPLE_DISPATCH (drivers/fast.h) for the instances of a function template of
// one type: a driver's one entry for every coordinate source (pixels_driver.cc) or kind of fixed
// coordinates (map_plan_driver.cc), of which a program links the instances it calls alone
// (api/run.h's RunFrom). Highway 1.0 exports named functions only, one table per name; here each
// instance's table is made where its dispatch is reached, of the same parts as HWY_EXPORT's.
// For the HWY_ONCE parts of the kernel files, after hwy/highway.h.
#ifndef GRIDSAMPLE_DRIVERS_EXPORT_TEMPLATE_H_
#define GRIDSAMPLE_DRIVERS_EXPORT_TEMPLATE_H_

#if GRIDSAMPLE_STATIC_DISPATCH || HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)

// One target: the call is direct, as HWY_EXPORT's one-entry table makes it.
#define GRIDSAMPLE_EXPORT_TEMPLATE(NAME) static_assert(true, "")
#define GRIDSAMPLE_DISPATCH_TEMPLATE(NAME, T) HWY_STATIC_DISPATCH(NAME<T>)

#else

// NAME##Targets<T>::kTable: HWY_EXPORT(NAME<T>)'s table (the first call picks the target).
#define GRIDSAMPLE_EXPORT_TEMPLATE(NAME)                                                         \
  template <class T>                                                                             \
  struct NAME##Targets {                                                                         \
    using Fn = decltype(HWY_STATIC_DISPATCH(NAME<T>));                                           \
    static Fn* const kTable[HWY_MAX_DYNAMIC_TARGETS + 2];                                        \
  };                                                                                             \
  template <class T>                                                                             \
  typename NAME##Targets<T>::Fn* const NAME##Targets<T>::kTable[HWY_MAX_DYNAMIC_TARGETS + 2] = { \
      &decltype(hwy::DeduceFunctionCache(                                                        \
          &HWY_STATIC_DISPATCH(NAME<T>)))::template ChooseAndCall<NAME##Targets<T>::kTable>,     \
      HWY_CHOOSE_TARGET_LIST(NAME<T>), HWY_CHOOSE_FALLBACK(NAME<T>)}
#define GRIDSAMPLE_DISPATCH_TEMPLATE(NAME, T) \
  (*NAME##Targets<T>::kTable[hwy::GetChosenTarget().GetIndex()])

#endif

#endif  // GRIDSAMPLE_DRIVERS_EXPORT_TEMPLATE_H_
